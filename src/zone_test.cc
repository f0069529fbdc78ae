#include "zone.h"

#include <doctest/doctest.h>
