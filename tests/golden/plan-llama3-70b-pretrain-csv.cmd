plan examples/plan-llama3-70b-pretrain.yaml --format csv
