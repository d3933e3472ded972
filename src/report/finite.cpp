#include "report/finite.hpp"
