estimate examples/llama3-8b-lora.yaml
