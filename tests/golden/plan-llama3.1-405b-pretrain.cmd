plan examples/plan-llama3.1-405b-pretrain.yaml
