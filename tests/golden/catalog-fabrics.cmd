catalog fabrics
