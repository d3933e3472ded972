plan examples/plan-llama3-70b-pretrain-fp8.yaml
