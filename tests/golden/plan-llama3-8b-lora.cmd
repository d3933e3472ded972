plan examples/plan-llama3-8b-lora.yaml
