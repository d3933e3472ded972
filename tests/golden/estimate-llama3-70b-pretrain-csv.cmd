estimate examples/llama3-70b-pretrain.yaml --format csv
