plan examples/plan-deepseek-v3-h800.yaml
