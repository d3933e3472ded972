// Tests of issue 23 (see the file header once written).
#include <gtest/gtest.h>
