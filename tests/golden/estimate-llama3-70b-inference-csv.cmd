estimate examples/llama3-70b-inference.yaml --format csv
