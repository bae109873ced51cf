// bench_go: goroutines' numbers for the side-by-side benchmarks of ito (ito-lab bench).
//
// How the peer is used (see lab/README.md, "Peers and how they are measured"):
//   - yield: GOMAXPROCS=1, two goroutines call runtime.Gosched n times each while main
//     waits on a sync.WaitGroup; per yield = elapsed / 2n;
//   - create_join: GOMAXPROCS=1, `go f()` of an empty function that signals an
//     unbuffered channel, main receives; n times; per goroutine = elapsed / n;
//   - create_1m: GOMAXPROCS at its default (the CPUs of the affinity mask); one creator
//     goroutine per P creates its share of 1,000,000 goroutines in batches of 10,000
//     alive at a time and waits for each batch with a WaitGroup; per goroutine =
//     elapsed / 1e6. The garbage collector runs with its defaults, as users have it.
//
// Each trial is timed with time.Now (monotonic); one untimed warm-up trial runs first;
// the median of the trials is printed as
//
//	RESULT benchmark=<b> system=go median_ns=<x> trials=<n>
//
// Usage: bench_go [--trials N] [--quick] [--only switch|yield|create_join|create_1m]
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"sort"
	"sync"
	"time"
)

const batch = 10000

type opts struct {
	trials int
	quick  bool
	only   string
}

func (o opts) wants(name string) bool { return o.only == "" || o.only == name }

// ops is the number of operations of one trial: full, or a tenth under --quick.
func (o opts) ops(full int) int {
	if o.quick {
		full /= 10
	}
	if full < 1 {
		full = 1
	}
	return full
}

// measure runs one warm-up trial then `trials` timed ones; trial(warmup) returns the
// number of operations it performed, and the sample is elapsed ns / operations.
func measure(trials int, trial func(warmup bool) int) []float64 {
	v := make([]float64, 0, trials)
	for t := -1; t < trials; t++ {
		t0 := time.Now()
		n := trial(t < 0)
		dt := time.Since(t0)
		if t >= 0 {
			v = append(v, float64(dt.Nanoseconds())/float64(n))
		}
	}
	return v
}

func report(bench string, v []float64) {
	sort.Float64s(v)
	n := len(v)
	med := v[n/2]
	if n%2 == 0 {
		med = (v[n/2-1] + v[n/2]) / 2
	}
	fmt.Printf("RESULT benchmark=%s system=go median_ns=%.3f trials=%d\n", bench, med, n)
}

func benchYield(o opts) {
	n := o.ops(100000)
	prev := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(prev)
	loop := func(wg *sync.WaitGroup) {
		for i := 0; i < n; i++ {
			runtime.Gosched()
		}
		wg.Done()
	}
	v := measure(o.trials, func(bool) int {
		var wg sync.WaitGroup
		wg.Add(2)
		go loop(&wg)
		go loop(&wg)
		wg.Wait()
		return 2 * n
	})
	report("yield", v)
}

func benchCreateJoin(o opts) {
	n := o.ops(100000)
	prev := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(prev)
	done := make(chan struct{})
	empty := func() { done <- struct{}{} }
	v := measure(o.trials, func(bool) int {
		for i := 0; i < n; i++ {
			go empty()
			<-done
		}
		return n
	})
	report("create_join", v)
}

func creator(n int, outer *sync.WaitGroup) {
	var wg sync.WaitGroup
	empty := func() { wg.Done() }
	for done := 0; done < n; done += batch {
		k := n - done
		if k > batch {
			k = batch
		}
		wg.Add(k)
		for i := 0; i < k; i++ {
			go empty()
		}
		wg.Wait()
	}
	outer.Done()
}

func benchCreate1M(o opts) {
	n := 1000000
	if o.quick {
		n = 100000
	}
	trials := o.trials
	if trials > 5 {
		trials = 5 // each trial is a million goroutines
	}
	procs := runtime.GOMAXPROCS(0)
	v := measure(trials, func(warmup bool) int {
		total := n
		if warmup {
			total = n / 10
		}
		var wg sync.WaitGroup
		wg.Add(procs)
		for p := 0; p < procs; p++ {
			share := total / procs
			if p < total%procs {
				share++
			}
			go creator(share, &wg)
		}
		wg.Wait()
		return total
	})
	report("create_1m", v)
}

func main() {
	var o opts
	flag.IntVar(&o.trials, "trials", 31, "timed trials per benchmark")
	flag.BoolVar(&o.quick, "quick", false, "a tenth of the operations; 100,000 goroutines for create_1m")
	flag.StringVar(&o.only, "only", "", "run one benchmark: switch, yield, create_join or create_1m")
	flag.Parse()
	switch o.only {
	case "", "switch", "yield", "create_join", "create_1m":
	default:
		fmt.Fprintf(os.Stderr, "bench_go: unknown benchmark %q\n", o.only)
		os.Exit(2)
	}
	if o.trials < 1 || flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	if o.wants("yield") {
		benchYield(o)
	}
	if o.wants("create_join") {
		benchCreateJoin(o)
	}
	if o.wants("create_1m") {
		benchCreate1M(o)
	}
}
