module ito/bench/peers/go

go 1.19
