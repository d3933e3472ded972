simulate examples/simulate-lora-team.yaml
