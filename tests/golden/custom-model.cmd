estimate examples/custom-model.yaml
