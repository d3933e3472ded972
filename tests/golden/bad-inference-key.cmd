estimate tests/golden/bad-inference-key.yaml
