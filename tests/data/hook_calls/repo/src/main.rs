use anyhow::Result;

fn main() -> Result<()> {
    println!("acme");
    Ok(())
}
