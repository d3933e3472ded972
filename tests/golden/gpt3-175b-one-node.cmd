estimate examples/gpt3-175b-one-node.yaml
