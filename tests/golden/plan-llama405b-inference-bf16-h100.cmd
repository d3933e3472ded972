plan examples/plan-llama3.1-405b-inference-bf16-h100.yaml
