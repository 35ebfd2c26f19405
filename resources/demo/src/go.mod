module symflame.demo/workload

go 1.19
