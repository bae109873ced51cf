// The Go peer of the loopback echo benchmark: the net package, one goroutine per
// connection (io.Copy-like loop), default settings (GOMAXPROCS = CPUs).
//
//	echo_go PORT   (prints "READY <port>" once listening; runs until killed)
package main

import (
	"fmt"
	"net"
	"os"
)

func serve(c net.Conn) {
	defer c.Close()
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
