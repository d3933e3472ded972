plan examples/plan-llama3-70b-qlora.yaml
