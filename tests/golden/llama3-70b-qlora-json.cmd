estimate examples/llama3-70b-qlora.yaml --format json
