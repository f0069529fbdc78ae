#include "window.h"

#include <doctest/doctest.h>
