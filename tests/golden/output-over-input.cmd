estimate tests/golden/output-over-input.yaml -o ./tests/golden/../golden/output-over-input.yaml
