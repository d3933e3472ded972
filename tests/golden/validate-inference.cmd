validate data/validation/inference.csv
