estimate tests/golden/bad-key.yaml
