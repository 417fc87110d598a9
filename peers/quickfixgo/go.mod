module peregrine/peers/quickfixgo

go 1.21

require github.com/quickfixgo/quickfix v0.9.6

require (
	github.com/pires/go-proxyproto v0.7.0 // indirect
	github.com/pkg/errors v0.9.1 // indirect
	github.com/shopspring/decimal v1.4.0 // indirect
	golang.org/x/net v0.24.0 // indirect
)
