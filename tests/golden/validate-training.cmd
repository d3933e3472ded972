validate data/validation/training.csv
