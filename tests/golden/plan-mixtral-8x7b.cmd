plan examples/plan-mixtral-8x7b.yaml
