"""Benchmarks of physical vs virtual machines (QEMU guests): harness, workloads, method, report."""
