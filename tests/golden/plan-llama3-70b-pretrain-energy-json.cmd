plan examples/plan-llama3-70b-pretrain.yaml --threads 1 --objective energy --format json
