catalog prices
