validate data/validation/external.csv --format csv
