module example.com/acme

go 1.22

require github.com/spf13/cobra v1.8.0
