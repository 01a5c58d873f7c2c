// Benchmarks print figures; they never fail a test run.
print("no benchmarks yet")
