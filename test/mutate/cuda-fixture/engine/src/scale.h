#pragma once

// y = a * x + b on the host (the reference) and on the device (the kernel under test).
float hostAxpb(float x, float a, float b);
bool deviceAvailable();
void deviceAxpb(const float* x, float* y, float a, float b, int n);
