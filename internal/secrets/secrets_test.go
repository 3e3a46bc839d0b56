package secrets

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Keys below are made up, in the shapes the real ones have.
const (
	pemKey = `-----BEGIN RSA PRIVATE KEY-----
MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun
VTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK
LxoS2tFczGkPLPgizskuemMghRniWaoLcyehkd3qqGElvW/VDL5AaWTg0nLVkjRo
9z+40RQzuVaE8AkAFmxZzow3x+VJYKdjykkJ0iT9wCS0DRTXu269V264Vf/3jvre
-----END RSA PRIVATE KEY-----`
	pemMasked = `-----BEGIN RSA PRIVATE KEY-----
…[masked private key]
…[masked private key]
…[masked private key]
…[masked private key]
-----END RSA PRIVATE KEY-----`
	labKey = "sk-ant-fake-key-for-local-testing-0123456789"
	jwt    = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
)

var cases = []struct {
	name, in, want string
}{
	// Keys known by their shape.
	{"anthropic lab key", "export ANTHROPIC_API_KEY=" + labKey, "export ANTHROPIC_API_KEY=sk-a…[masked anthropic key]"},
	{"openai key", "key sk-abcdefghij0123456789ABCDEFGHIJ in prose", "key sk-a…[masked openai key] in prose"},
	{"openai project key", "sk-proj-Ab3dEfGh1jKlMnOpQrStUvWxYz0123456789", "sk-p…[masked openai key]"},
	{"env openai key", "export OPENAI_API_KEY=sk-proj-Ab3dEfGh1jKlMnOpQrStUvWx", "export OPENAI_API_KEY=sk-p…[masked openai key]"},
	{"github classic", "ghp_1234567890abcdefghijABCDEFGHIJ123456 ok", "ghp_…[masked github token] ok"},
	{"github app", "token is gho_16C7e42F292c6912E7710c838347Ae178B4a", "token is gho_…[masked github token]"},
	{"github server", "ghs_16C7e42F292c6912E7710c838347Ae178B4a", "ghs_…[masked github token]"},
	{"gitlab token", "curl -H 'PRIVATE-TOKEN: glpat-x8Ab3dEfGh1jKlMnOpQr' https://gitlab.example.com", "curl -H 'PRIVATE-TOKEN: glpa…[masked gitlab token]' https://gitlab.example.com"},
	{"npm token", "//registry.npmjs.org/:_authToken=npm_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8", "//registry.npmjs.org/:_authToken=npm_…[masked npm token]"},
	{"hugging face token", "HF hf_aB3dEfGh1jKlMnOpQrStUvWxYz012345 set", "HF hf_a…[masked hugging face token] set"},
	{"env db pass", "DB_PASS=Tr0ub4dorX", "DB_PASS=…[masked password]"},
	{"env mysql pwd", "export MYSQL_PWD=hunter22", "export MYSQL_PWD=…[masked password]"},
	{"github fine grained", "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz0123", "gith…[masked github token]"},
	{"aws key id", "AccessKeyId: AKIAIOSFODNN7EXAMPLE,", "AccessKeyId: AKIA…[masked aws key id],"},
	{"aws session key id", "ASIAY34FZKBOKMUTVV7A", "ASIA…[masked aws key id]"},
	{"aws secret ini", "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "aws_secret_access_key = wJal…[masked aws secret]"},
	{"google api key", "key=AIzaSyDaGmWKa4JsXZ-HjGw7ISLn_3namBGewQe&q=1", "key=AIza…[masked google api key]&q=1"},
	{"slack bot", "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx", "xoxb…[masked slack token]"},
	{"stripe live", "stripe sk_live_4eC39HqLyjWDarjtT1zdp7dc", "stripe sk_l…[masked stripe key]"},
	{"stripe restricted", "rk_live_51H8abcdEFGHijklMNOP", "rk_l…[masked stripe key]"},
	{"jwt", "id " + jwt + " end", "id eyJh…[masked jwt] end"},
	{"authorization bearer", "curl -H 'Authorization: Bearer 0123456789abcdefABCDEF.xyz'", "curl -H 'Authorization: Bearer 0123…[masked bearer token]'"},
	{"bearer jwt", "Authorization: Bearer " + jwt, "Authorization: Bearer eyJh…[masked jwt]"},
	{"basic auth", "Authorization: Basic dXNlcjpodW50ZXIy", "Authorization: Basic …[masked auth header]"},
	{"url credentials", "git remote add o https://bob:hunter2@example.com/x.git", "git remote add o https://bob:…[masked password]@example.com/x.git"},
	{"private key block", "$ cat id_rsa\n" + pemKey + "\n$ ", "$ cat id_rsa\n" + pemMasked + "\n$ "},
	{"private key in json", `"private_key": "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----\n",`,
		`"private_key": "-----BEGIN PRIVATE KEY-----\…[masked private key]\n-----END PRIVATE KEY-----\n",`},

	// Assignments: the value only.
	{"password env", "PGPASSWORD=hunter2 psql", "PGPASSWORD=…[masked password] psql"},
	{"password flag", "mysql --password hunter2 -u root", "mysql --password …[masked password] -u root"},
	{"password flag equals", "app --password=hunter2", "app --password=…[masked password]"},
	{"api key flag", "tool --api-key abcdef0123456789abcdef run", "tool --api-key abcd…[masked key] run"},
	{"passwd yaml", "  passwd: s3cr3t", "  passwd: …[masked password]"},
	{"apikey yaml", "apikey: 0123456789abcdef0123", "apikey: 0123…[masked key]"},
	{"json api_key", `{"api_key": "abcd1234efgh5678", "model": "x"}`, `{"api_key": "abcd…[masked key]", "model": "x"}`},
	{"quoted secret", `client_secret="Zm9vYmFyYmF6cXV4"`, `client_secret="Zm9v…[masked secret]"`},
	{"github token env", "GITHUB_TOKEN=abc123def456ghi789jkl0", "GITHUB_TOKEN=abc1…[masked token]"},
	{"url query token", "GET /cb?access_token=abc123xyz&state=1", "GET /cb?access_token=…[masked token]&state=1"},
	{"code literal", `password = "hunter2"`, `password = "…[masked password]"`},
	{"dialog in a box", "│ API_KEY: sk-ant-...l-testing-0123456789   │", "│ API_KEY: sk-a…[masked key]   │"},
	{"ansi colours", "\x1b[1mANTHROPIC_API_KEY\x1b[0m: sk-ant-...l-testing-0123456789", "\x1b[1mANTHROPIC_API_KEY\x1b[0m: sk-a…[masked key]"},
	{"two on a line", "A_TOKEN=one1 B_SECRET=two2", "A_TOKEN=…[masked token] B_SECRET=…[masked secret]"},

	// Passwords on a command line, in the command's own syntax.
	{"mysql glued", "$ mysql -uroot -pS3cret! app", "$ mysql -uroot -p…[masked password] app"},
	{"mysql first", "mysql -pPASSWORD", "mysql -p…[masked password]"},
	{"mysqldump quoted", "mysqldump -h db -u root -p'hunter2' app > dump.sql", "mysqldump -h db -u root -p'…[masked password]' app > dump.sql"},
	{"mysql in docker", "docker exec -it db /usr/bin/mysql -u app -phunter2 -e 'select 1'", "docker exec -it db /usr/bin/mysql -u app -p…[masked password] -e 'select 1'"},
	{"mariadb", "mariadb-dump -pZm9vYmFy --all-databases", "mariadb-dump -p…[masked password] --all-databases"},
	{"curl user", "curl -u user:PASS https://api.example.com/v1", "curl -u user:…[masked password] https://api.example.com/v1"},
	{"curl long quoted", "curl -s --user 'bob:hunter2' https://x.example", "curl -s --user 'bob:…[masked password]' https://x.example"},
	{"curl glued", "curl -ualice:s3cr3t https://x.example", "curl -ualice:…[masked password] https://x.example"},
	{"curl proxy user", "curl -U proxy:pr0xyPass -x http://proxy:3128 https://x.example", "curl -U proxy:…[masked password] -x http://proxy:3128 https://x.example"},
	{"sshpass", "sshpass -p PASS ssh user@host", "sshpass -p …[masked password] ssh user@host"},
	{"sshpass glued", "sshpass -pS3cret scp f host:", "sshpass -p…[masked password] scp f host:"},
	{"sshpass after its options", "sshpass -v -p 'hunter2' ssh -p 2222 host", "sshpass -v -p '…[masked password]' ssh -p 2222 host"},
	{"azure storage", "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==;EndpointSuffix=core.windows.net",
		"DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=…[masked azure key];EndpointSuffix=core.windows.net"},
	{"azure service bus", "Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=abcdEFGHijklMNOPqrstUVWXyz0123456789+/ab=",
		"Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=…[masked azure key]"},
	{"azure json", `"AccountKey": "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="`, `"AccountKey": "…[masked azure key]"`},

	// Not secrets.
	{"token in prose", "the token limit is 4096", ""},
	{"tokens counted", "(6s · ↓ 61 tokens · esc to cancel)", ""},
	{"token colon prose", "Note the token: it expires soon", ""},
	{"git sha", "commit 5e113a9f0c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f", ""},
	{"uuid", "claude --resume 58a2a05f-d89b-42bd-8398-563533b9a6d3", ""},
	{"path", "/home/user/.config/secrets/token.json", ""},
	{"key path", "SSH_KEY=~/.ssh/id_ed25519", ""},
	{"numbers", "max_token=4096 1234567890123456789012345", ""},
	{"variable reference", "export GITHUB_TOKEN=$GH_TOKEN", ""},
	{"code call", "token = get_token()", ""},
	{"code call no spaces", "token=get_token(user)", ""},
	{"placeholder", "password: ********", ""},
	{"app masked key", "Incorrect API key provided: sk-fake****, url: http://127.0.0.1:18080/v1", ""},
	{"key prefix shown", "│ > sk-...    │", ""},
	{"bearer placeholder", "Authorization: Bearer <token>", ""},
	{"bearer prose", "send a bearer token-based-authentication header", ""},
	{"sudo prompt", "[sudo] password for bob: ", ""},
	{"passphrase prompt", "Enter passphrase (empty for no passphrase): ", ""},
	{"lower case key", "sorted(xs, key=len); sort_key=name", ""},
	{"oauth url", "id_token_add_organizations=true&codex_cli_simplified_flow=true", ""},
	{"word with sk-", "risk-assessment-framework-document-v2 and task-0123456789-abcdefghij", ""},
	{"begin public key", "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8A\n-----END PUBLIC KEY-----", ""},
	{"env var name", "Existing API key detected (GEMINI_API_KEY). Select it.", ""},
	{"ssh port", "ssh -p 2222 user@host", ""},
	{"mkdir parents", "mkdir -p src/pkg && cp -pr a b", ""},
	{"docker port and user", "docker run -p 8080:80 -u 1000:1000 nginx", ""},
	{"mysql asks", "mysql -u root -p mydb", ""},
	{"mysql port", "mysql -P3306 -h db -P 3307", ""},
	{"mysql password variable", `mysqldump -u root -p"$DB_PASSWORD" app`, ""},
	{"mysql then another command", "mysql -u root app; ls -pa", ""},
	{"not mysql", "mysqlnd-wrapper-free text; pip install mysql-connector-python -p", ""},
	{"sshpass from a file", "sshpass -f ~/.pw ssh -p 2222 host", ""},
	{"sshpass from the environment", "sshpass -e ssh -p 2222 host", ""},
	{"curl user only", "curl -u alice https://x.example", ""},
	{"curl user variables", `curl -u "$USER:$TOKEN" https://x.example`, ""},
	{"curl user agent", `curl --user-agent "Mozilla/5.0 (X11; Linux x86_64)" -o out.json https://x.example:8443/a`, ""},
	{"curl negotiate", "curl --negotiate -u : https://x.example", ""},
	{"azure placeholder", "AccountKey=<your-account-key>;AccountName=acct", ""},
}

func TestMask(t *testing.T) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want := c.want
			if want == "" {
				want = c.in
			}
			got := Mask(c.in)
			if got != want {
				t.Fatalf("Mask(%q)\n got %q\nwant %q", c.in, got, want)
			}
			if again := Mask(got); again != got {
				t.Errorf("not idempotent: Mask(%q) = %q", got, again)
			}
			if Count(got) != 0 {
				t.Errorf("Count of masked text = %d, want 0", Count(got))
			}
			if strings.Count(got, "\n") != strings.Count(c.in, "\n") {
				t.Errorf("line count changed: %q", got)
			}
			wantCount := strings.Count(want, markerOpen) - strings.Count(c.in, markerOpen)
			if n := Count(c.in); n != wantCount {
				t.Errorf("Count = %d, want %d", n, wantCount)
			}
		})
	}
}

// TestMaskShowsLittle checks that a marker keeps at most a short prefix of what it
// replaced, and none of a short secret or of a password.
func TestMaskShowsLittle(t *testing.T) {
	for _, c := range []struct{ in, shown string }{
		{"API_TOKEN=abcdefghijk9", ""},
		{"password=correct-horse-battery-staple", ""},
		{"API_TOKEN=abcdefghijklmnopqrstuvwxyz", "abcd"},
		{"sk-ant-" + strings.Repeat("a1", 40), "sk-a"},
	} {
		got := Mask(c.in)
		_, value, _ := strings.Cut(got, "=")
		if !strings.Contains(c.in, "=") {
			value = got
		}
		if shown, _, _ := strings.Cut(value, "…"); shown != c.shown {
			t.Errorf("Mask(%q) = %q shows %q, want %q", c.in, got, shown, c.shown)
		}
	}
}

// TestFixtures masks every captured agent screen: only the one that shows a key changes.
func TestFixtures(t *testing.T) {
	const withKey = "03-NEEDS_CONFIRMATION-use-custom-api-key-dialog"
	root := filepath.Join("..", "..", "packs", "testdata", "fixtures")
	n := 0
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !(strings.HasSuffix(path, ".txt") || strings.HasSuffix(path, ".ansi")) {
			return err
		}
		n++
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		in := string(data)
		got := Mask(in)
		if strings.Contains(path, withKey) {
			if Count(in) != 1 || !strings.Contains(got, "ANTHROPIC_API_KEY") || strings.Contains(got, "0123456789") {
				t.Errorf("%s: key not masked (%d spans):\n%s", path, Count(in), got)
			}
			if Mask(got) != got || strings.Count(got, "\n") != strings.Count(in, "\n") {
				t.Errorf("%s: masked screen changes again or lost lines", path)
			}
			return nil
		}
		if got != in {
			t.Errorf("%s: changed a screen with no secret:\n%s", path, diff(in, got))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 100 {
		t.Fatalf("read %d fixtures under %s, want many", n, root)
	}
}

func diff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	var out []string
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			out = append(out, "- "+al[i], "+ "+bl[i])
		}
	}
	return strings.Join(out, "\n")
}

// screen is a 50-line agent screen with a few secrets on it.
func screen() string {
	lines := []string{
		"╭──────────────────────────────────────────────────────────────────────────────╮",
		"│ ✻ Welcome to Claude Code!                                                    │",
		"╰──────────────────────────────────────────────────────────────────────────────╯",
		"> set up the deploy script and check the env",
		"⏺ Bash(cat .env)",
		"  ⎿  OPENAI_API_KEY=sk-proj-Ab3dEfGh1jKlMnOpQrStUvWxYz0123456789",
		"     DATABASE_URL=postgres://app:hunter2@db.internal:5432/app",
		"     GITHUB_TOKEN=ghp_1234567890abcdefghijABCDEFGHIJ123456",
	}
	for i := len(lines); i < 46; i++ {
		lines = append(lines, "  the token limit is 4096; commit 5e113a9f0c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f in src/deploy/run.go")
	}
	lines = append(lines,
		"✢ Burrowing… (6s · ↓ 61 tokens · esc to interrupt)",
		"╭──────────────────────────────────────────────────────────────────────────────╮",
		"│ >                                                                            │",
		"╰──────────────────────────────────────────────────────────────────────────────╯")
	return strings.Join(lines, "\n")
}

func BenchmarkMask(b *testing.B) {
	s := screen()
	if n := Count(s); n != 3 {
		b.Fatalf("Count = %d, want 3", n)
	}
	b.SetBytes(int64(len(s)))
	b.ReportAllocs()
	for b.Loop() {
		Mask(s)
	}
}
