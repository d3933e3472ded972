plan examples/plan-llama3-8b-own-cluster.yaml --threads 1
