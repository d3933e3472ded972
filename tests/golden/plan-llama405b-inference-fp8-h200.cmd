plan examples/plan-llama3.1-405b-inference-fp8-h200.yaml
