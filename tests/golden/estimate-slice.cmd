estimate tests/golden/estimate-slice.yaml
