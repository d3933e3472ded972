plan examples/plan-llama3-70b-inference.yaml --format csv
