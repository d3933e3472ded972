simulate tests/golden/simulate-small.yaml --format json --threads 2
