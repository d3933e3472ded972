simulate examples/simulate-team.yaml
