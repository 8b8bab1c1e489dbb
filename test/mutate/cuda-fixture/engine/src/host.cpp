#include "scale.h"

float hostAxpb(float x, float a, float b) {
  return a * x + b;
}
