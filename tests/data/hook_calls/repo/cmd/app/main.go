package main

import (
	"errors"
	"fmt"
)

func main() {
	fmt.Println(errors.New("acme"))
}
