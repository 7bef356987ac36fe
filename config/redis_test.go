package config_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kisa-dev/kisa/config"
	"github.com/kisa-dev/kisa/testenv"
)

// selfSigned writes a self-signed certificate for 127.0.0.1 and its key
// into dir and returns their paths.
func selfSigned(tb testing.TB, dir string) (certFile, keyFile string) {
	tb.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		tb.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "kisa test redis"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, IsCA: true, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		tb.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		tb.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600); err != nil {
		tb.Fatal(err)
	}
	return certFile, keyFile
}

// TestRedisTLSSelfSigned runs a real redis-server that speaks only TLS
// with a self-signed certificate: rediss:// refuses it unless
// KISA_REDIS_TLS_INSECURE opts in.
func TestRedisTLSSelfSigned(t *testing.T) {
	cert, key := selfSigned(t, t.TempDir())
	port := testenv.FreePort(t)
	testenv.StartRedisServer(t, port, "--port", "0", "--tls-port", strconv.Itoa(port),
		"--tls-cert-file", cert, "--tls-key-file", key, "--tls-ca-cert-file", cert, "--tls-auth-clients", "no")
	url := "rediss://127.0.0.1:" + strconv.Itoa(port) + "/0"
	tests := []struct {
		name     string
		insecure string
		wantErr  string // "" for a working connection
	}{
		{"certificate checked by default", "false", "certificate signed by unknown authority"},
		{"explicit opt-in accepts it", "true", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := config.Load(testenv.Environ("REDIS_URL="+url, "KISA_REDIS_TLS_INSECURE="+tt.insecure))
			if err == nil {
				err = cfg.Validate()
			}
			if err != nil {
				t.Fatal(err)
			}
			rdb, err := cfg.RedisClient()
			if err != nil {
				t.Fatal(err)
			}
			defer rdb.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			err = rdb.Ping(ctx).Err()
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Errorf("ping: %v, want %q", err, tt.wantErr)
			}
		})
	}
}
