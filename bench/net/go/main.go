// The Go peer of the loopback echo benchmark: the net package, one goroutine per
// connection (io.Copy-like loop), default settings (GOMAXPROCS = CPUs).
//
//	echo_go PORT [N]   (prints "READY <port>" once listening; runs until killed, or
//	                    until N connections have closed, then exits 0)
package main

import (
	"fmt"
	"net"
	"os"
	"strconv"
	"sync/atomic"
)

var exitAfter, closed int64

func serve(c net.Conn) {
	defer func() {
		c.Close()
		if exitAfter > 0 && atomic.AddInt64(&closed, 1) == exitAfter {
			os.Exit(0)
		}
	}()
	buf := make([]byte, 65536)
	for {
		n, err := c.Read(buf)
		if n > 0 {
			if _, werr := c.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

func main() {
	port := "0"
	if len(os.Args) > 1 {
		port = os.Args[1]
	}
	if len(os.Args) > 2 {
		exitAfter, _ = strconv.ParseInt(os.Args[2], 10, 64)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:"+port)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("READY %d\n", ln.Addr().(*net.TCPAddr).Port)
	for {
		c, err := ln.Accept()
		if err != nil {
			continue
		}
		go serve(c)
	}
}
