estimate examples/mistral-7b-pcie.yaml
