print("benchmarks placeholder")
