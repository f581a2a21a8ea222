module example.com/golarge

go 1.19
