simulate examples/simulate-team.yaml --format csv
