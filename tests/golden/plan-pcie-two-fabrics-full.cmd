plan tests/golden/plan-pcie-two-fabrics.yaml --full-frontier
