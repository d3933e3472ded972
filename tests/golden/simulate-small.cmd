simulate tests/golden/simulate-small.yaml
