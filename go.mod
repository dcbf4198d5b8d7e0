module github.com/msched/msched

go 1.26.0
