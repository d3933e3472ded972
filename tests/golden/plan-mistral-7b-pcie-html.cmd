plan examples/plan-mistral-7b-pcie.yaml --format html
