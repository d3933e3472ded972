plan examples/plan-llama3.1-405b-nvl72.yaml
