estimate examples/mixtral-8x7b-pretrain.yaml
