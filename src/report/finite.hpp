// Finite-or-refused checks at the edge of the model (filled in by the output-safety work).
#pragma once
